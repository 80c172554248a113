"""inspect.signature() and help() show the bindings' own parameters: their names, kinds,
defaults as Python values and the annotations of the stubs, for every function, method (unbound
and bound), static method and class constructor of the package."""
import inspect
import pydoc
import re

import pytest

import batchbloom
import batchbloom.parquet

P = inspect.Parameter

# An instance of every public class, for its bound methods.
INSTANCES = {
    batchbloom.Filter: lambda: batchbloom.Filter(100, 0.01),
    batchbloom.CountingFilter: lambda: batchbloom.CountingFilter(100, 0.01),
    batchbloom.DeletableFilter: lambda: batchbloom.DeletableFilter(100, 0.01),
    batchbloom.ScalableFilter: lambda: batchbloom.ScalableFilter(100, 0.01),
    batchbloom.ClassicFilter: lambda: batchbloom.ClassicFilter(100, 0.01),
    batchbloom.JoinFilter: lambda: batchbloom.JoinFilter([1, 2, 3]),
    batchbloom.JoinPlan: lambda: batchbloom.JoinFilter([1, 2, 3]).plan(mode="always"),
    batchbloom.ConcurrentFilter: lambda: batchbloom.ConcurrentFilter(batchbloom.Filter(100, 0.01)),
    batchbloom.Params: lambda: batchbloom.Params.for_fpr(100, 0.01),
    batchbloom.ClassicParams: lambda: batchbloom.ClassicFilter(100, 0.01).params,
    batchbloom.FileLock: lambda: batchbloom.FileLock("unlocked.bbf"),
}
ERRORS = (batchbloom.Error, batchbloom.FormatError)


def is_binding(value):
    return type(value).__module__ == "nanobind"


def public_callables():
    """(name, callable) for every function and class the package exports, and every method,
    static method and operator its classes define, unbound and bound to an instance."""
    modules = [(batchbloom, batchbloom.__all__), (batchbloom.parquet, batchbloom.parquet.__all__)]
    for module, names in modules:
        for name in names:
            value = getattr(module, name)
            if callable(value):
                yield f"{module.__name__}.{name}", value
    classes = [getattr(batchbloom, name) for name in batchbloom.__all__ if isinstance(getattr(batchbloom, name), type)]
    assert set(classes) == set(INSTANCES) | set(ERRORS), "a new class: add an instance of it to INSTANCES"
    for cls, make in INSTANCES.items():
        instance = make()
        for name, value in vars(cls).items():
            if is_binding(value) and (not name.startswith("_") or name in ("__init__", "__contains__", "__or__",
                                                                        "__and__", "__ior__", "__iand__", "__eq__")):
                yield f"{cls.__name__}.{name}", getattr(cls, name)
                if name != "__init__":
                    yield f"{cls.__name__}().{name}", getattr(instance, name)


CALLABLES = dict(public_callables())


def signature_or_error(obj):
    try:
        return str(inspect.signature(obj))
    except ValueError as e:
        return type(e)


@pytest.mark.parametrize("name", CALLABLES)
def test_every_public_callable_has_its_real_signature(name):
    obj = CALLABLES[name]
    if obj in ERRORS:
        # ValueErrors, as Python's own: inspect finds what it finds for ValueError (a class
        # attribute __signature__ would also be theirs in the generated stubs).
        assert signature_or_error(obj) == signature_or_error(ValueError)
        return
    sig = inspect.signature(obj)
    kinds = {p.kind for p in sig.parameters.values()}
    assert not kinds & {P.VAR_POSITIONAL, P.VAR_KEYWORD}, f"{name}{sig}"
    assert all(p.annotation is not P.empty for p in sig.parameters.values() if p.name != "self"), f"{name}{sig}"
    bound = name.split(".")[0].endswith("()") or isinstance(obj, type)
    assert ("self" in sig.parameters) == (is_binding(obj) and not bound and "(self" in obj.__nb_signature__[0][0])


def test_exact_signatures():
    F = batchbloom.Filter
    keys = "keys: numpy.typing.ArrayLike | collections.abc.Iterable[int | bytes | str]"
    nulls = "nulls: typing.Literal['error', 'skip'] = 'error'"
    assert str(inspect.signature(F.contains)) == f"(self, {keys}, *, {nulls}) -> numpy.typing.NDArray[numpy.bool_]"
    assert str(inspect.signature(F(10, 0.1).insert)) == f"({keys}, *, {nulls}) -> None"
    assert str(inspect.signature(F(10, 0.1).__contains__)) == "(key: int | bytes | str) -> bool"

    sig = inspect.signature(F)
    assert list(sig.parameters) == ["n", "fpr", "bits_per_key", "shape", "hash", "seed", "backend", "threads"]
    assert [p.default for p in sig.parameters.values()] == [None, None, None, "word512", "xxh3", 0, "auto", 0]
    assert sig.parameters["fpr"].kind is P.POSITIONAL_OR_KEYWORD and sig.parameters["shape"].kind is P.KEYWORD_ONLY
    assert sig.bind(1000, 0.01, threads=2).arguments == {"n": 1000, "fpr": 0.01, "threads": 2}

    nulls_param = inspect.signature(F.count).parameters["nulls"]
    assert (nulls_param.kind, nulls_param.default) == (P.KEYWORD_ONLY, "error")
    assert nulls_param.annotation == "typing.Literal['error', 'skip']"  # a str, as unevaluated annotations are

    assert str(inspect.signature(F.__or__)) == "(self, arg: batchbloom._core.Filter, /) -> batchbloom._core.Filter"
    assert inspect.signature(F.from_params).parameters["params"].kind is P.POSITIONAL_OR_KEYWORD  # static: no self
    assert inspect.signature(batchbloom.resolve_backend).parameters["name"].default == "auto"
    assert str(inspect.signature(batchbloom.available_backends)) == "() -> list[str]"
    add = inspect.signature(batchbloom.parquet.add)
    assert list(add.parameters)[:3] == ["input", "output", "columns"]
    assert add.parameters["fpr"].kind is P.KEYWORD_ONLY and add.parameters["fpr"].default == 0.01
    join = inspect.signature(batchbloom.JoinFilter)
    assert join.parameters["chunk_rows"].default == 65536 and join.parameters["bits_per_key"].default is None


def test_a_python_subclass_has_its_own_constructor_signature():
    class Named(batchbloom.Filter):
        def __init__(self, name, n=10):
            super().__init__(n, 0.01)
            self.name = name

    assert str(inspect.signature(Named)) == "(name, n=10)"
    assert inspect.signature(Named(name="x").contains) == inspect.signature(batchbloom.Filter(10, 0.1).contains)


def help_text(obj):
    """help(obj)'s text, its lines joined: Python 3.13's pydoc puts a long signature's parameters
    on lines of their own."""
    return " ".join(line.lstrip(" |") for line in pydoc.render_doc(obj, renderer=pydoc.plaintext).splitlines())


def test_help_shows_the_parameters():
    text = help_text(batchbloom.Filter)
    assert re.search(r"Filter\(\s*n: int \| None = None,\s*fpr: float \| None = None,\s*\*,\s*bits_per_key", text)
    assert re.search(r"contains\(\s*self,\s*keys: numpy.typing.ArrayLike", text) and "(...)" not in text
    text = help_text(batchbloom.JoinFilter)
    assert re.search(r"JoinFilter\(\s*build_keys: numpy.typing.ArrayLike", text)
    assert re.search(r"select\(\s*self,\s*keys:", text)


def test_only_nanobinds_types_take_a_signature():
    with pytest.raises(TypeError, match="nanobind's function types"):
        batchbloom._core._define_signature(int, property(lambda self: None))
