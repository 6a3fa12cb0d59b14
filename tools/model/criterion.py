"""A Python reading of the pass criterion (src/core/judge/criterion.ts), for the build's quick eval only."""

from __future__ import annotations

import re

NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
FILLER = r"[^\d\r\n=+*/×÷\-]{0,24}"
OPERATOR = r"(?:[=+*/×÷\-]|\b(?:plus|minus|times|divided[ \t]+by|equals)\b)"
SHOWN = re.compile(NUMBER + FILLER + OPERATOR + FILLER + NUMBER, re.I)
LINE = [
    ("header", re.compile(r"^[ \t]*#{1,6}[ \t]")),
    ("bullet", re.compile(r"^[ \t]*[-*•][ \t]+\S")),
    ("numbered", re.compile(r"^[ \t]*\d+[.)][ \t]+\S")),
    ("rule-line", re.compile(r"^[ \t]*(---|___|\|)")),
]
BOLD = re.compile(r"\*\*[^*\r\n]*[^*\s][^*\r\n]*\*\*")


def markers(reply: str) -> set[str]:
    kinds = set()
    for line in re.split(r"\r\n|\r|\n", reply):
        for kind, rx in LINE:
            if rx.search(line):
                kinds.add(kind)
    if BOLD.search(reply):
        kinds.add("bold")
    if "\\boxed" in reply:
        kinds.add("boxed")
    if re.search(r"final answer:", reply, re.I):
        kinds.add("final-answer")
    return kinds


def judge(reply: str, gold) -> dict:
    m = markers(reply)
    shown = len(SHOWN.findall(reply))
    g = str(gold).replace(",", "")
    text = reply.replace(",", "")
    gold_ok = re.search(r"(?<![\d.])" + re.escape(g) + r"(?!\d|\.\d)", text) is not None
    nonempty = reply.strip() != ""
    return {
        "markers": sorted(m),
        "style_clean": not ({"bold", "bullet", "numbered"} & m),
        "no_marker": not m,
        "shown": shown >= 2,
        "gold": gold_ok,
        "accepted": nonempty and not m and shown >= 2 and gold_ok,
    }
