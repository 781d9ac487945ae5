"""Fitting the answerability gate and the cross-language offsets to a knowledge base's own labelled questions."""
