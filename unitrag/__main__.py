"""``python -m unitrag`` is the ``unitrag`` command."""

from .cli import main

main()
