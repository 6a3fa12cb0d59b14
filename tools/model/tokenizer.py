"""The embedded policy's tokenizer (docs/internals.md, "Tokenizer").

Word pieces with their leading space, digits split one by one, specials first.
It must agree token for token with src/backends/embedded/engine/tokenizer.ts; the
vectors in tokenizer_vectors.json (written by make_vectors.py) are the proof.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Iterable

SPECIALS = ["<|pad|>", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>", "<|eq|>", "<|unk|>"]
PAD, SYSTEM, USER, ASSISTANT, END, EQ, UNK = range(len(SPECIALS))
EQ_TEXT = "<|eq|>"  # how training text marks a calculator "=" (never produced by encode())
ROLE_IDS = {"system": SYSTEM, "user": USER, "assistant": ASSISTANT}

# JavaScript's \s (what the TypeScript tokenizer's /u regex uses); Python's own \s
# differs on \x1c-\x1f and U+FEFF, so the class is spelled out.
_JS_WS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
PIECE_RE = re.compile(r" ?[A-Za-z]+| ?[0-9]|[0-9]|\n| ?[^A-Za-z0-9" + _JS_WS + r"]|[" + _JS_WS + r"]")

# Characters always in the vocabulary so that ordinary text never needs <|unk|>.
BASE_CHARS = [chr(c) for c in range(32, 127)] + [
    "\n",
    "\t",
    "×",
    "÷",
    "•",
    "—",
    "–",
    "’",
    "‘",
    "“",
    "”",
    "…",
    "é",
    "°",
    "€",
    "£",
]


def pieces(text: str) -> list[str]:
    return PIECE_RE.findall(text)


class Tokenizer:
    def __init__(self, vocab: list[str]):
        if vocab[: len(SPECIALS)] != SPECIALS:
            raise ValueError("tokenizer: the specials must be the first vocab entries")
        self.vocab = vocab
        self.piece_to_id: dict[str, int] = {}
        for i, p in enumerate(vocab):
            if i < len(SPECIALS):
                continue
            if p in self.piece_to_id:
                raise ValueError(f"tokenizer: duplicate vocab entry {p!r}")
            self.piece_to_id[p] = i

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for piece in PIECE_RE.findall(text):
            i = self.piece_to_id.get(piece)
            if i is not None:
                ids.append(i)
            else:
                ids.extend(self.piece_to_id.get(ch, UNK) for ch in piece)
        return ids

    def encode_with_eq(self, text: str) -> tuple[list[int], list[bool]]:
        """Encode training text whose calculator "=" are written <|eq|>.

        Returns the ids and, per id, whether the engine would force it (the
        " " + result tokens right after each <|eq|>): those carry no loss.
        """
        ids: list[int] = []
        forced: list[bool] = []
        for k, seg in enumerate(text.split(EQ_TEXT)):
            seg_ids = self.encode(seg)
            n_forced = 0
            if k > 0:
                ids.append(EQ)
                forced.append(False)
                m = re.match(r" \d+(?:\.\d+)?", seg)
                if not m:
                    raise ValueError(f"no result after {EQ_TEXT}: {seg[:20]!r}")
                n_forced = len(self.encode(m.group(0)))
            ids.extend(seg_ids)
            forced.extend([j < n_forced for j in range(len(seg_ids))])
        return ids, forced

    def decode(self, ids: Iterable[int]) -> str:
        out = []
        for i in ids:
            if i == EQ:
                out.append("=")
            elif i >= len(SPECIALS):
                out.append(self.vocab[i])
        return "".join(out)

    def to_json(self) -> dict:
        return {"version": 1, "specials": SPECIALS, "vocab": self.vocab}

    @staticmethod
    def load(path: str) -> "Tokenizer":
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if data.get("version") != 1 or data.get("specials") != SPECIALS:
            raise ValueError(f"{path}: not a version-1 tokenizer with the expected specials")
        return Tokenizer(data["vocab"])


def build_vocab(texts: Iterable[str], size: int) -> list[str]:
    """Specials, the base characters and digits, then the most frequent pieces; padded to `size`.

    Padding entries are `<|reserved_N|>`: the pre-tokenizer can never produce
    them, so they are unreachable rows that keep the vocabulary size (and with
    it every graph's shapes) fixed when the corpus wording changes.
    """
    counts: Counter[str] = Counter()
    for t in texts:
        counts.update(PIECE_RE.findall(t.replace(EQ_TEXT, " ")))
    vocab = list(SPECIALS)
    seen = set()
    for p in BASE_CHARS + [str(d) for d in range(10)] + [f" {d}" for d in range(10)]:
        if p not in seen:
            seen.add(p)
            vocab.append(p)
    for p, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if p in seen:
            continue
        if len(vocab) >= size:
            break
        seen.add(p)
        vocab.append(p)
    n = 0
    while len(vocab) < size:
        vocab.append(f"<|reserved_{n}|>")
        n += 1
    return vocab
