"""Writes tokenizer_vectors.json: texts (tricky ones included) → ids under the committed
tokenizer, for the TypeScript tokenizer's test (src/backends/embedded/engine/tokenizer.test.ts)."""

from __future__ import annotations

import json
import sys

from data import prompt_ids
from tokenizer import Tokenizer

TEXTS = [
    "",
    "Natalia sold 48 clips in April.",
    "48 / 2 = 24",
    " 1234567890",
    "1,234.56",
    "$12 an hour",
    "3/8ths of a day",
    "  two  spaces",
    "tab\there",
    "line one\nline two\n\nline four",
    "\r\n windows line",
    "**Final answer:** 72",
    "### Step 1: Clips sold in May",
    "- bullet item",
    "• dot bullet",
    "1. numbered step",
    "\\boxed{72}",
    "$\\boxed{72}$",
    "---",
    "| a | b |",
    "12 × 3 ÷ 4",
    "x²+y²",
    "naïve café résumé",
    "emoji 🙂 and 🧮!",
    "日本語のテキスト",
    "don't won't it's",
    "“smart quotes” and ‘single’",
    "em—dash and en–dash …",
    "<|eq|> is not special in text",
    "<|end|><|user|>",
    "<|reserved_0|>",
    "ALLCAPS and MixedCase words",
    "homework/7.txt",
    "Great, that looks right. Please append the answers to homework/12.txt.",
    "HOMEWORK_DONE",
    "snake_case_name and kebab-case-name",
    "a\u00a0non-breaking space",
    "zero\u200bwidth",
    "byte order\ufeffmark",
    "\x1cfile separator",
    "\u2028line separator",
    "trailing space ",
    " leading space",
    "   ",
    "\n",
    "0.5 + 0.25 = 0.75",
    "(3 + 4) * 5",
    "-7 degrees",
    "100%",
    "Mr. Smith's 3rd-grade class",
    "e.g. i.e. etc.",
]


def main(argv: list[str]) -> None:
    tok_path = argv[0] if argv else "assets/models/policy/tokenizer.json"
    out = argv[1] if len(argv) > 1 else "tools/model/tokenizer_vectors.json"
    tok = Tokenizer.load(tok_path)
    cases = [{"text": t, "ids": tok.encode(t), "decoded": tok.decode(tok.encode(t))} for t in TEXTS]
    chat = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "My homework is in homework/3.txt. 48 / 2?"},
        {"role": "assistant", "content": "So 48 / 2 = 24."},
        {"role": "user", "content": "Thanks!"},
    ]
    data = {
        "tokenizer_sha256_note": "ids are for the tokenizer.json committed beside decode.onnx",
        "cases": cases,
        "chat": {"messages": chat, "prompt_ids": prompt_ids(tok, chat)},
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{out}: {len(cases)} texts")


if __name__ == "__main__":
    main(sys.argv[1:])
