"""inspect.signature() and help() for the functions, methods and classes of batchbloom._core.

nanobind's function objects describe themselves in __nb_signature__: per overload a `def` line
(defaults as placeholders \\0, \\1, ... where the binding holds the value), its docstring and
the default values. inspect.signature() reads obj.__signature__ before anything else, which
they lack, and they take no attribute of their own; install() gives their types (and the
metaclass of the bound classes) a __signature__ property through _core._define_signature().
Signatures are parsed on first use, so importing batchbloom and calling its functions cost what
they did.
"""

import ast
import functools
import inspect

from . import _core

P = inspect.Parameter


class _Annotation(str):
    """An annotation as nanobind writes it (a str, as `from __future__ import annotations`
    leaves them), shown without quotes, as in the stubs."""

    __repr__ = str.__str__


class _Default:
    """A default that the signature gives as source text only (an expression that is no literal)."""

    def __init__(self, text):
        self._text = text

    def __repr__(self):
        return self._text


def _split(text, sep):
    """`text` cut at each `sep` outside brackets and string literals (sep may be the bracket
    that closes the one before `text`)."""
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote and text[i - 1] != "\\" else quote
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
    return parts + [text[start:]]


def _annotation(text):
    """The annotation, if it parses as a Python expression (else none: nanobind may name a C++
    type it does not know)."""
    text = text.strip()
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return P.empty
    return _Annotation(text)


def _default(text, values):
    text = text.strip()
    if text.startswith("\\") and text[1:].isdigit():
        return values[int(text[1:])]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return _Default(text)


def _parameters(text, values):
    """The parameters of a `def` line's parameter list, of the kinds its / and * make them."""
    params, kind = [], P.POSITIONAL_OR_KEYWORD
    for part in map(str.strip, _split(text, ",")):
        if part in ("", "/", "*"):
            if part == "/":
                params = [p.replace(kind=P.POSITIONAL_ONLY) for p in params]
            elif part == "*":
                kind = P.KEYWORD_ONLY
            continue
        name_annotation, *default = _split(part, "=")
        name, *annotation = _split(name_annotation, ":")
        name, this_kind = name.strip(), kind
        if name.startswith("**"):
            name, this_kind = name[2:], P.VAR_KEYWORD
        elif name.startswith("*"):
            name, this_kind, kind = name[1:], P.VAR_POSITIONAL, P.KEYWORD_ONLY
        params.append(
            P(
                name,
                this_kind,
                default=_default("=".join(default), values) if default else P.empty,
                annotation=_annotation(":".join(annotation)) if annotation else P.empty,
            )
        )
    return params


@functools.lru_cache(maxsize=None)
def _of_function(func):
    """The signature of a nanobind function (with `self` for a method); None for one with
    overloads, which one Signature cannot describe."""
    overloads = func.__nb_signature__
    if len(overloads) != 1:
        return None
    text, _doc, values = overloads[0]
    opened = text.index("(")
    parameters, *rest = _split(text[opened + 1 :], ")")
    returns = ")".join(rest).strip()
    return inspect.Signature(
        _parameters(parameters, values or ()),
        return_annotation=_annotation(returns[2:]) if returns.startswith("->") else inspect.Signature.empty,
    )


def _without_first(sig):
    """A method's signature as its bound method or its class is called: without `self`."""
    return None if sig is None else sig.replace(parameters=list(sig.parameters.values())[1:])


@functools.lru_cache(maxsize=None)
def _of_bound_method(func):
    return _without_first(_of_function(func))


def _of_class(cls):
    """The constructor's: __init__ without `self` (a Python subclass's own __init__ if it has
    one); None for a class that cannot be constructed from Python."""
    init = cls.__init__
    if init is object.__init__:
        return None
    return _without_first(inspect.signature(init))


def install():
    method = _core.Filter.__dict__["contains"]
    bound = method.__get__(method)  # a bound method of any object: only its type is wanted
    for kind, signature in (
        (type(_core.available_backends), _of_function),
        (type(method), _of_function),
        (type(bound), lambda m: _of_bound_method(m.__func__)),
        (type(_core.Filter), _of_class),
    ):
        _core._define_signature(kind, property(signature))
