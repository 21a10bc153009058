"""Typos in a paste, corrected toward the catalog's own words before its patterns see the text.

A user who retypes an error ("DLL load faild", "pygpu was configued but could not be
imported") writes the catalog's words one letter off. The vocabulary is the catalog's: every
word of 7 or more letters in its patterns' literal text. A word of the paste that is not in it,
but one edit away (a letter dropped, added, changed or two swapped) from exactly one word of
it with the same first letter, becomes that word. Short words are left alone (too many are one
edit from another), so is any word the patterns spell anywhere, an alternative of a group
included (`already satisfied|installed` keeps "satisfied" from becoming pip's "satisfies"),
and so is a paste over MAX_CHARS (a machine's log, not typed; and the lookup is per word).

One edit is found with the symmetric-delete method: the vocabulary's words with each letter
deleted in turn are indexed once; a word of the paste matches a vocabulary word when the two
share the word itself or one of these deletions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MIN_LETTERS = 7
MAX_CHARS = 64 * 1024
WORD = re.compile(rf"[A-Za-z]{{{MIN_LETTERS},40}}")


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


class Corrector:
    def __init__(self, words: Iterable[str], spelled: Iterable[str] = ()) -> None:
        """``words``: the vocabulary typos are corrected toward; ``spelled``: words left as they
        are (the patterns spell them, though not as a whole literal word)."""
        self.words = {w.lower() for w in words if len(w) >= MIN_LETTERS}
        # the patterns' own spelling of each word, given back where the paste's is not all lower
        # case (of several, the one sorting first: capitals first, as `ResolvePackageNotFound`)
        self.spelling: dict[str, str] = {}
        for w in sorted(words):
            if len(w) >= MIN_LETTERS:
                self.spelling.setdefault(w.lower(), w)
        self.spelled = {w.lower() for w in spelled} | self.words
        self.index: dict[str, set[str]] = {}
        for w in self.words:
            for key in (w, *_deletions(w)):
                self.index.setdefault(key, set()).add(w)

    def nearest(self, word: str) -> str | None:
        """The one vocabulary word one edit from ``word`` (None: none, or more than one)."""
        lower = word.lower()
        if lower in self.spelled:
            return None
        found: set[str] = set()
        for key in (lower, *_deletions(lower)):
            found |= self.index.get(key, set())
        # the first letter is kept: a typo there is rare, and a different word likelier
        found = {
            w for w in found if w[0] == lower[0] and abs(len(w) - len(lower)) <= 1 and _one_edit(lower, w)
        }
        return found.pop() if len(found) == 1 else None

    def correct(self, text: str) -> str:
        if len(text) > MAX_CHARS:
            return text

        def fix(m: re.Match[str]) -> str:
            word = m.group(0)
            near = self.nearest(word)
            if near is None:
                return word
            return near if word.islower() else self.spelling.get(near, near)

        return WORD.sub(fix, text)


def _one_edit(a: str, b: str) -> bool:
    """Levenshtein distance 1, or two neighbours swapped."""
    if a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


# a whole literal word of a pattern: not an escape's letter (\w), not a stem that a group, a
# class or a quantifier completes (`dependenc(y|ies)`, `initiali[sz]e`, `errors?`), not one
# alternative of a group (`(Forward|Backward)`), not a flag's (`-lpython`)
LITERAL_WORD = re.compile(rf"(?<![\\\w)\]|-])([A-Za-z]{{{MIN_LETTERS},40}})(?![\w(\[{{?*+|])")


def top_level_alternatives(pattern: str) -> list[str]:
    """``pattern`` split at its top-level `|` (not one inside a group or a class, nor an escaped
    one): each alternative is a whole pattern, whose last word no group completes."""
    parts, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    return [*parts, pattern[start:]]


def pattern_words(patterns: Iterable[str]) -> set[str]:
    """The whole literal words of regular expressions (of each top-level alternative)."""
    words: set[str] = set()
    for p in patterns:
        for alternative in top_level_alternatives(p):
            words |= set(LITERAL_WORD.findall(alternative))
    return words


def spelled_words(patterns: Iterable[str]) -> set[str]:
    """Every run of letters long enough to be corrected that regular expressions spell."""
    return {w for p in patterns for w in WORD.findall(p)}
