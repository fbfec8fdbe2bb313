"""A question as search needs it. Agents ask in the words of a task, often a commit message
("Fix X when Y", "refactor(cli): allow X to Y (#1234)"): the conventional-commit prefix,
issue and pull-request references, trailers and links say nothing about the code, and the
verbs of change (fix, add, allow, ...) say little, so they are dropped or weigh less."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from branchgraph.core.languages import language_for_path
from branchgraph.core.lexical import is_stopword, query_terms

# ``feat(cors):``, ``:bug: fix:``, ``🐛 fix(client)!:``: the type of change names no code, but
# its scope does (the module or folder the commit touches), so the scope stays as words.
_CONVENTIONAL_PREFIX = re.compile(
    r"^\s*(?:(?::[a-z0-9_+-]+:|[^\x00-\x7f]{1,4})\s*)*"  # gitmoji, as a shortcode or the emoji itself
    r"(?:(?:fix|feat|feature|refactor|perf|chore|docs?|tests?|style|build|ci|revert)(?:\(([^)]*)\))?!?:\s*)?",
    re.IGNORECASE,
)
_REFERENCE = re.compile(r"\(?(?:\b(?:closes|fixes|fixed|resolves|refs?|see)\s+)?(?:#|\bgh-)\d+\)?", re.IGNORECASE)
_TRAILER = re.compile(r"^[\w-]+-by:.*$|^Signed-off-by:.*$", re.MULTILINE | re.IGNORECASE)
_URL = re.compile(r"https?://\S+")

# Words of change: nearly every task says one, and they name no code.
CHANGE_WORDS = frozenset(
    "fix fixes fixed fixing add adds added adding allow allows allowed support supports supported use uses using "
    "make makes made remove removes removed avoid avoids handle handles handled update updates updated improve "
    "improves improved ensure ensures prevent prevents correct correctly properly change changes changed "
    "instead now new bug issue issues case cases when should dont don doesn doesnt work works working "
    "also again more less better".split()
)
CHANGE_WORD_WEIGHT = 0.3


def search_text(query: str) -> str:
    """The query without the parts of a commit message that name no code."""
    text = _TRAILER.sub(" ", query)
    text = _URL.sub(" ", text)
    text = _REFERENCE.sub(" ", text)
    lines = text.strip().splitlines()
    if lines:
        lines[0] = _CONVENTIONAL_PREFIX.sub(_scope_words, lines[0], count=1)
    return " ".join(" ".join(lines).split())


_SCOPE = re.compile(r"[\w.-]+(?:/[\w.-]+)*")


# ``net/http: fix ...``, ``callers: avoid ...``: a subject that starts with the area it changes.
_AREA = re.compile(r"([\w./-]+(?:,\s*[\w./-]+)*):\s+\S")


def commit_scopes(query: str) -> list[str]:
    """The scopes of a commit subject: a conventional commit's (``fix(jwt,jwk):`` names ``jwt``
    and ``jwk``; ``perf(utils/body):`` names ``utils/body``) or the area it starts with
    (``net/http: fix ...``): the modules or folders it changes."""
    subject = query.lstrip().split("\n", 1)[0]
    prefix = _CONVENTIONAL_PREFIX.match(subject)
    scope = (prefix.group(1) or "") if prefix else ""
    if not scope and prefix is not None and (area := _AREA.match(subject, prefix.end())):
        scope = area.group(1)
    return [s for s in re.split(r"[\s,]+", scope) if _SCOPE.fullmatch(s) and not s.replace(".", "").isdigit()]


def _scope_words(prefix: re.Match[str]) -> str:
    """A conventional-commit prefix as the words of its scope (``fix(utils/body):`` is
    ``utils body``)."""
    scope = prefix.group(1) or ""
    return " ".join(re.split(r"[\s,/]+", scope)).strip() + " " if scope.strip() else ""


# A member is written after a dot, or as the documentation conventions of Java, JavaScript and
# Ruby (``Node#outerHtml``, Javadoc's ``{@link Tag#isBlock}``) and of Rust and C++ (``Foo::new``).
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:(?:\.|#|::)[A-Za-z_]\w*)+")
_MEMBER_SEPARATOR = re.compile(r"\.|#|::")


def dotted_names(query: str) -> list[list[str]]:
    """The dotted names a question writes (``requests.get``, ``Flask.run``, ``Node#outerHtml``),
    split at their separators."""
    return [_MEMBER_SEPARATOR.split(name) for name in _DOTTED.findall(query) if not name.replace(".", "").isdigit()]


def names_symbol(dotted: list[list[str]], kind: str, qualname: str) -> bool:
    """Whether one of the question's dotted names refers to this symbol: the last part is its
    name, and the parts before it are its class (a method) or lie on its module path (a
    function or class re-exported higher up: ``requests.get`` is ``requests.api.get``)."""
    parts = qualname.split(".")
    for name in dotted:
        if name[-1] != parts[-1]:
            continue
        if kind == "Method":
            if len(parts) >= 2 and name[-2] == parts[-2]:
                return True
        elif all(part in parts[:-1] for part in name[:-1]):
            return True
    return False


# A file a question names: ``in marshmallow/decorators.py``, ``fields.py``, ``the validate
# module``. Agents and commit messages say where as often as what.
_FILE_MENTION = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z]+)\b")
_MODULE_MENTION = re.compile(r"`?\b([A-Za-z_]\w*)`? (?:module|package)\b")


@dataclass(frozen=True, slots=True)
class FileMentions:
    """The files a question names: paths (or their trailing parts) and module names."""

    paths: tuple[str, ...]
    modules: tuple[str, ...]

    @classmethod
    def of(cls, query: str) -> FileMentions:
        paths = [m.removeprefix("./") for m in _FILE_MENTION.findall(query) if language_for_path(m) is not None]
        modules = [
            m
            for m in commit_scopes(query) + _MODULE_MENTION.findall(query)
            if not is_stopword(m) and m.lower() not in CHANGE_WORDS
        ]
        return cls(tuple(dict.fromkeys(paths)), tuple(dict.fromkeys(modules)))

    def __bool__(self) -> bool:
        return bool(self.paths or self.modules)

    def name(self, path: str) -> bool:
        """Whether the question names this file: by its path or a trailing part of it, by its
        module name (the file without its extension), or by its package (a folder on its path);
        a module may be a path of folders (``utils/body``)."""
        if any(path == p or path.endswith("/" + p) for p in self.paths):
            return True
        return any(re.search(pattern, path) for pattern in self.module_patterns())

    def module_patterns(self) -> list[str]:
        """A regular expression per module name that a path it names matches (the same in
        Python and PostgreSQL): the name as a file without its extensions, or as folders."""
        # A private module is named without its underscore (``callers`` is ``_callers.py``).
        return [f"(^|/){'' if m.startswith('_') else '_?'}{re.escape(m)}(\\.[^/]*$|/)" for m in self.modules]


def term_weight(term: str) -> float:
    """How much a query term counts, on top of its rarity in the code."""
    return CHANGE_WORD_WEIGHT if term in CHANGE_WORDS else 1.0


# Terms this long that share this many first letters are one word in two forms
# (``serialization`` / ``serialize``, ``validated`` / ``validation``).
_STEM = 5


def content_terms(query: str) -> list[str]:
    """The terms of a question that can name code: its full-text terms without the words of
    change."""
    return [t for t in query_terms(search_text(query)) if t not in CHANGE_WORDS]


@dataclass(frozen=True, slots=True)
class Words:
    """A set of lower-case terms that also knows each long one's first letters, so that
    whether it says a word in another form is two set lookups."""

    exact: frozenset[str]
    stems: frozenset[str]

    @classmethod
    def of(cls, words: Iterable[str]) -> Words:
        exact = frozenset(words)
        return cls(exact, frozenset(w[:_STEM] for w in exact if len(w) >= _STEM))

    def say(self, word: str) -> bool:
        """Whether one of these is ``word``, allowing a different ending."""
        return word in self.exact or (len(word) >= _STEM and word[:_STEM] in self.stems)


def shared_share(terms: list[str], others: Words) -> float:
    """The share of ``terms`` that ``others`` say."""
    if not terms:
        return 0.0
    return sum(others.say(t) for t in terms) / len(terms)
