"""HTTP paths as servers declare them and as clients write them, brought to one form:
``/api/orders/{param}``. Route parameters in every framework's spelling (``<int:id>``,
``{id}``, ``:id``, a regex group) and a client's interpolations (``f"/orders/{oid}"``,
`` `/orders/${id}` ``, ``"/orders/" + id``) become ``{param}``; a trailing ``*`` or ``{*}``
segment matches the rest of a path. Matching says how well a client's path fits a route's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PARAM = "{param}"
REST = "{*}"

_FLASK_PARAM = re.compile(r"<[^<>]*>")
_BRACE_PARAM = re.compile(r"\{[^{}]*\}")
_REGEX_GROUP = re.compile(r"\((?:\?P<\w+>)?[^()]*\)")
_REGEX_NOISE = re.compile(r"\\(.)")
_STRING_PREFIX = re.compile(r"^[rbfuRBFU]{0,2}")
_ABSOLUTE = re.compile(r"^(?:https?:)?//([^/]*)(.*)$")
_TEMPLATE_VALUE = re.compile(r"\$\{[^}]*\}")
_BRACE_VALUE = re.compile(r"\{[^{}]*\}")
_PERCENT_VALUE = re.compile(r"%(\([^)]*\))?[-#0 +]*\d*(\.\d+)?[sdifrx]")
_OPTIONS_METHOD = re.compile(r"""\bmethod\s*[:=]\s*["'`](\w+)["'`]""")


@dataclass(frozen=True, slots=True)
class ClientPath:
    """A client's URL as far as it is known: its path, whether an unknown base (a variable, a
    configured host) comes before it, and the host of an absolute URL."""

    path: str
    dynamic_base: bool = False
    host: str | None = None


def route_path(template: str) -> str:
    """A route as a framework declares it (Flask/Django ``<int:id>``, FastAPI/Spring/Go
    ``{id}``, Express/gin ``:id``, ``*``), normalized."""
    path = _FLASK_PARAM.sub(PARAM, template)
    path = _BRACE_PARAM.sub(lambda m: REST if m.group(0).startswith(("{*", "{$")) else PARAM, path)
    segments = []
    for segment in path.split("/"):
        if segment.startswith(":"):
            segment = PARAM
        elif segment.startswith("*"):
            segment = REST
        segments.append(segment)
    return normalize("/".join(segments))


def regex_route(pattern: str) -> str | None:
    """A Django ``re_path`` / ``url`` regex as a route path; None when the pattern is more
    than a path with groups (alternations, classes outside groups)."""
    body = pattern.removeprefix("^").removesuffix("$").removesuffix("/?")
    body = _REGEX_GROUP.sub(PARAM, body)
    body = _REGEX_NOISE.sub(r"\1", body)
    if re.search(r"[\[\]|+*?()]", body):
        return None
    return normalize(body)


def join(*parts: str) -> str:
    """Prefixes and a route joined as a framework joins them (one slash between)."""
    return normalize("/".join(p.strip("/") for p in parts if p.strip("/")))


def normalize(path: str) -> str:
    """One leading slash, no trailing one, no empty segments, a segment holding a parameter
    is a parameter (``v{param}``, ``{param}.json``)."""
    segments = [s for s in path.split("/") if s]
    out = [PARAM if PARAM in s and s != PARAM else s for s in segments]
    return "/" + "/".join(out)


def string_literal(raw: str) -> str | None:
    """The value of a plain string literal (no interpolation), else None."""
    text = _STRING_PREFIX.sub("", raw, count=1) if raw[:1] not in "\"'`" else raw
    if len(text) < 2 or text[0] not in "\"'`" or text[-1] != text[0]:
        return None
    quote = text[0]
    inner = text.strip(quote) if text.startswith(quote * 3) else text[1:-1]
    if quote == "`" and "${" in inner:
        return None
    if raw[:1] in "fF" and "{" in inner.replace("{{", ""):
        return None
    if quote in inner.replace("\\" + quote, ""):
        return None  # two literals side by side, or something else
    return inner


def client_path(raw: str) -> ClientPath | None:
    """What a client's URL argument says about the path it requests: string literals,
    f-strings, template literals and ``+`` concatenations of them; None when the argument is
    no URL (a variable alone, a relative name)."""
    text = _interpolated(raw)
    if text is None:
        return None
    text = text.split("?", 1)[0].split("#", 1)[0]
    host = None
    absolute = _ABSOLUTE.match(text)
    if absolute:
        host, text = absolute.group(1), absolute.group(2) or "/"
        if host.startswith(PARAM) or host == PARAM:
            return ClientPath(normalize(text), dynamic_base=True)
    dynamic_base = False
    while text.startswith(PARAM):
        dynamic_base = True
        text = text[len(PARAM) :]
    if not text.startswith("/") or (dynamic_base and text == "/"):
        return None  # a relative name, or nothing known after an unknown base
    return ClientPath(normalize(text), dynamic_base=dynamic_base, host=host)


def options_method(raw: str) -> str | None:
    """The method of a fetch-style options object (``{ method: "POST" }``)."""
    found = _OPTIONS_METHOD.search(raw)
    return found.group(1).upper() if found else None


def _interpolated(raw: str) -> str | None:
    """A URL expression with every interpolated or concatenated value as ``{param}``; None
    when no literal piece gives it a path."""
    pieces: list[str] = []
    literal_pieces = 0
    i, n = 0, len(raw)
    while i < n:
        ch = raw[i]
        if ch.isspace() or ch == "+":
            i += 1
            continue
        prefix = _STRING_PREFIX.match(raw, i)
        start = prefix.end() if prefix else i
        if start < n and raw[start] in "\"'`":
            quote = raw[start]
            end = raw.find(quote, start + 1)
            while end != -1 and raw[end - 1] == "\\":
                end = raw.find(quote, end + 1)
            if end == -1:
                return None
            body = raw[start + 1 : end]
            rest = raw[end + 1 :].lstrip()
            if quote == "`":
                body = _TEMPLATE_VALUE.sub(PARAM, body)
            elif "f" in raw[i:start].lower() or rest.startswith(".format("):
                body = _BRACE_VALUE.sub(PARAM, body.replace("{{", "").replace("}}", ""))
            if rest.startswith("%") or rest.startswith(".format("):
                # `"/books/%s/" % pk`, `"/books/{}/".format(pk)`: the operands fill the
                # placeholders; nothing after them belongs to the path.
                pieces.append(_PERCENT_VALUE.sub(PARAM, body) if rest.startswith("%") else body)
                literal_pieces += 1
                break
            pieces.append(body)
            literal_pieces += 1
            i = end + 1
            continue
        # An expression between the pieces: a value the path is built from.
        depth, j = 0, i
        while j < n and not (depth == 0 and raw[j] == "+"):
            depth += raw[j] in "([{"
            depth -= raw[j] in ")]}"
            j += 1
        pieces.append(PARAM)
        i = j
    return "".join(pieces) if literal_pieces else None


@dataclass(frozen=True, slots=True)
class Fit:
    """How a client path fits a route: a score (literal segments count most) and whether a
    parameter or an unknown base had to stand in for something."""

    score: float
    bound_parameter: bool
    base_skipped: bool


def fit(client: ClientPath, route: str) -> Fit | None:
    """Whether ``client`` can request ``route`` (both normalized), and how specifically."""
    wanted = [s for s in client.path.split("/") if s]
    declared = [s for s in route.split("/") if s]
    if declared and declared[-1] == REST:
        fixed = declared[:-1]
        if len(wanted) < len(fixed):
            return None
        # After an unknown base the client's path is the route's tail, else its head.
        wanted_fixed = wanted[len(wanted) - len(fixed) :] if client.dynamic_base else wanted[: len(fixed)]
        result = _segments_fit(wanted_fixed, fixed)
        return Fit(result[0] + 0.5, True, client.dynamic_base) if result else None
    if client.dynamic_base:
        if len(declared) < len(wanted):
            return None
        skipped = len(declared) > len(wanted)
        result = _segments_fit(wanted, declared[len(declared) - len(wanted) :])
        return Fit(result[0], result[1], skipped) if result else None
    if len(declared) != len(wanted):
        return None
    result = _segments_fit(wanted, declared)
    return Fit(result[0], result[1], False) if result else None


def _segments_fit(wanted: list[str], declared: list[str]) -> tuple[float, bool] | None:
    score, bound = 0.0, False
    for w, d in zip(wanted, declared, strict=True):
        if d == w and d != PARAM:
            score += 3
        elif d == PARAM and w == PARAM:
            score += 2
        elif d == PARAM:
            score += 1
            bound = True
        elif w == PARAM:
            score += 0.5  # a value the client computes may well be this literal segment
            bound = True
        else:
            return None
    return score, bound
