"""The extractive answer's numbered steps: in their list's order, with their numbers, and the whole list for a
procedure asked ("how do I…", 怎么…)."""

from __future__ import annotations

import re

import pytest

from unitrag.rag.answer.focus import Lexicon

from tests.rag.answer.test_extractive import ask, source

WOOL = ("## Hand washing a wool jumper\n\n"
        "1. Fill a basin with cool water and a capful of wool wash.\n"
        "2. Soak the jumper for ten minutes; do not rub it.\n"
        "3. Rinse the jumper in cool water until the water runs clear.\n"
        "4. Press the water out gently; never wring wool.\n"
        "5. Roll the jumper in a dry towel and press to take out the water.\n"
        "6. Dry it flat on a towel, away from heat.")


def test_steps_of_a_numbered_list_are_quoted_in_their_order_with_their_numbers() -> None:
    answer = ask("How do I get the water out of a jumper after washing it?", "en", [source(1, "Wool", WOOL, ["iwto"])])
    line = answer.splitlines()[1]
    assert line.startswith("1. Wool: Hand washing a wool jumper: (")  # a step, after its context (said once)
    numbers = [int(n) for n in re.findall(r"\((\d)\) ", line)]
    assert len(numbers) >= 2 and numbers == sorted(numbers), line  # the list's order, not the best step first
    assert "(5) Roll the jumper in a dry towel" in line and line.count("Hand washing a wool jumper") == 1


ACCLIMATING = ("**On the way home.** Keep the bag in a dark box so the new fish stay calm.\n\n"
               "**Acclimating (the float and mix method)**\n\n"
               "1. Turn the aquarium lights off.\n"
               "2. Float the closed bag on the tank surface for 15–20 minutes.\n"
               "3. Add half a cup of tank water to the bag every 5 minutes, four or five times.\n"
               "4. Net the new fish out of the bag into the tank; never pour the shop water in.\n\n"
               "**Quarantine.** Keep new fish in a separate tank for three weeks before they join the others.")


def test_a_procedure_asked_gets_the_numbered_list_that_names_it_every_step_in_order() -> None:
    """A reader's "How do I acclimate new fish?" got a story's overview and step 4 alone: the list headed
    "Acclimating" is the answer, from its first step."""
    story = source(1, "New fish", "Most new fish die from the changes of temperature on the way into the new tank. "
                   "A quarantine of three weeks is the minimum for new fish.", ["a"])
    scene = source(2, "Acclimating new fish", ACCLIMATING, ["b"])
    line = ask("How do I acclimate new fish?", "en", [story, scene]).splitlines()[1]
    assert line.startswith("1. Acclimating new fish: Acclimating (the float and mix method): (1) Turn"), line
    assert [int(n) for n in re.findall(r"\((\d)\) ", line)] == [1, 2, 3, 4]
    # a question after one fact of the same unit is no procedure: its sentence, not the list
    fact = ask("How long should new fish be quarantined?", "en", [story, scene]).splitlines()[1]
    assert "(1)" not in fact and "three weeks" in fact


@pytest.mark.parametrize(("question", "steps"), [
    ("How do I acclimate new fish?", True),
    ("how to clean a grinder", True),
    ("新鱼买回来怎么过水？", True),
    ("如何给新鱼过水", True),
    ("How do I know if my fish is sick?", False),
    ("How long should new fish be quarantined?", False),
    ("鱼怎么会突然死了", False),
])
def test_a_question_asks_for_a_procedure(question: str, steps: bool) -> None:
    assert Lexicon().focus(question).asks_steps is steps


def test_chinese_steps_are_numbered_in_full_width_brackets_and_bullets_stay_best_first() -> None:
    text = ("去油渍的步骤：\n\n1. 先用厨房纸吸走表面的油。\n2. 在油渍上撒一层小苏打或玉米淀粉。\n"
            "3. 滴几滴洗洁精，轻轻搓洗油渍。\n4. 按衣物标签的温度清洗油渍衣物。\n5. 晾干后检查油渍，没去净就重复。")
    answer = ask("衣服上的油渍怎么去？晾干后还有油渍怎么办？", "zh", [source(1, "油渍", text, ["a"], lang="zh")])
    line = answer.splitlines()[1]
    numbers = [int(n) for n in re.findall(r"（(\d)）", line)]
    assert len(numbers) >= 2 and numbers == sorted(numbers), line
    bulleted = ask("衣服上的油渍怎么去？晾干后还有油渍怎么办？", "zh",
                   [source(1, "油渍", re.sub(r"\d\. ", "- ", text), ["a"], lang="zh")])
    assert "（" not in bulleted and bulleted.splitlines()[1].startswith("1. 油渍：去油渍的步骤：晾干后检查油渍")


TRUING = ("Truing a wheel:\n\n"
          "1. Spin the wheel and find where the rim wobbles most.\n"
          "2. Tighten the spoke on the opposite side a quarter turn.\n"
          "3. Seen from the tyre, the nipple turned anticlockwise pulls the rim, so the wobble moves back.\n"
          "4. Stop when it runs true within 1 mm.")


def test_the_steps_between_two_quoted_steps_are_quoted_too() -> None:
    """A reader's "how to true a wheel" got steps (1) and (3), and not step 2, the one to do."""
    answer = ask("where does the rim wobble", "en", [source(1, "Wheels", TRUING, ["park"])])
    line = answer.splitlines()[1]
    numbers = [int(n) for n in re.findall(r"\((\d)\) ", line)]
    assert numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) >= 3, line
    assert "Tighten the spoke on the opposite side" in line



LOST_PASS = ("A lost pass can be replaced only if it was bought with the holder's name on the lost pass.\n\n"
             "1. Go to the ticket office as soon as you notice your pass is lost.\n"
             "2. Show photo ID and the receipt of the lost pass.\n"
             "3. Staff block the lost pass at once, so nobody else can use it.\n"
             "4. Pay the $10 replacement fee; the new card carries the days left on the old one.\n"
             "5. If you find the old card later, hand it back: it no longer works.\n\n"
             "A lost pass without a name cannot be replaced. A lost pass found on the slopes goes to the ticket office. "
             "Lost pass reports are kept for a season.")


def test_a_procedure_asked_is_quoted_to_its_last_step_within_the_budget() -> None:
    """A new team's "I lost my ski pass, what do I do?" stopped at step 3 of 5, before the $10 fee (its content test):
    the steps after it say none of the question's words, and sentences that do filled the answer first."""
    line = ask("I lost my pass, what do I do?", "en", [source(1, "Lost pass", LOST_PASS, ["guide"])]).splitlines()[1]
    assert "(3) Staff block" in line and "(4) Pay the $10 replacement fee" in line and "(5) If you find" in line
    # not asked as a procedure: the steps the question's words pick, no more
    plain = ask("Is a lost pass blocked?", "en", [source(1, "Lost pass", LOST_PASS, ["guide"])]).splitlines()[1]
    assert "(3) Staff block" in plain and "$10" not in plain
