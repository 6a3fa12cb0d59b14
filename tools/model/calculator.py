"""Python twin of src/backends/embedded/engine/calculator.ts, for the build's own evaluation.

The engine evaluates the expression that ends right before <|eq|> (the longest
suffix of numbers, spaces, parentheses and + - * / × ÷) and forces " " + result.
"""

from __future__ import annotations

import re

OPS = set("+-*/×÷")
NUMBER = re.compile(r"^(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?$")


def expression_suffix(text: str) -> str:
    start = len(text)
    while start > 0:
        ch = text[start - 1]
        if ch in " ()" or ch in OPS:
            start -= 1
            continue
        if not ch.isdigit() or not ch.isascii():
            break
        run_start = start
        while run_start > 0 and (
            text[run_start - 1].isascii() and (text[run_start - 1].isdigit() or text[run_start - 1] in ",.")
        ):
            run_start -= 1
        number_start = start
        for i in range(run_start, start):
            if text[i].isdigit() and NUMBER.match(text[i:start]):
                number_start = i
                break
        start = number_start
        if number_start != run_start:
            break
    return text[start:].strip()


def evaluate(expr: str):
    toks = []
    i = 0
    while i < len(expr):
        c = expr[i]
        if c == " ":
            i += 1
        elif c in "()":
            toks.append(c)
            i += 1
        elif c in OPS:
            toks.append({"×": "*", "÷": "/"}.get(c, c))
            i += 1
        elif c.isascii() and c.isdigit():
            j = i
            while j < len(expr) and (expr[j].isascii() and (expr[j].isdigit() or expr[j] in ",.")):
                j += 1
            lit = expr[i:j]
            if not NUMBER.match(lit):
                return None
            toks.append(float(lit.replace(",", "")))
            i = j
        else:
            return None
    if not toks:
        return None
    pos = 0

    class Fail(Exception):
        pass

    def factor():
        nonlocal pos
        if pos < len(toks) and isinstance(toks[pos], float):
            pos += 1
            return toks[pos - 1]
        if pos < len(toks) and toks[pos] == "(":
            pos += 1
            v = total()
            if pos >= len(toks) or toks[pos] != ")":
                raise Fail
            pos += 1
            return v
        raise Fail

    def product():
        nonlocal pos
        v = factor()
        while pos < len(toks) and toks[pos] in ("*", "/"):
            op = toks[pos]
            pos += 1
            r = factor()
            if op == "*":
                v *= r
            elif r == 0:
                raise Fail
            else:
                v /= r
        return v

    def total():
        nonlocal pos
        v = product()
        while pos < len(toks) and toks[pos] in ("+", "-"):
            op = toks[pos]
            pos += 1
            r = product()
            v = v + r if op == "+" else v - r
        return v

    try:
        v = total()
    except Fail:
        return None
    if pos != len(toks):
        return None
    return v


def format_result(v: float):
    if v != v or abs(v) >= 1e15:
        return None
    if float(v).is_integer():
        return str(int(v))
    r = round(v * 1e4) / 1e4
    if float(r).is_integer():
        return str(int(r))
    return f"{r:.4f}".rstrip("0").rstrip(".")


def completion(reply_before_eq: str):
    """The text the engine forces after <|eq|>, or None."""
    expr = expression_suffix(reply_before_eq)
    if not expr:
        return None
    v = evaluate(expr)
    if v is None:
        return None
    r = format_result(v)
    return None if r is None else " " + r
