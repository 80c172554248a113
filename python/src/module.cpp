// The extension module batchbloom._core; the package batchbloom re-exports it.
#include <batchbloom/backend.hpp>
#include <batchbloom/environment.hpp>
#include <batchbloom/error.hpp>
#include <batchbloom/version.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "args.hpp"
#include "py_filter.hpp"

NB_MODULE(_core, m) {
    namespace bb = batchbloom;
    namespace nb = nanobind;
    m.doc() = "Blocked Bloom filters built and probed in batches (C++ core of the batchbloom package).";
    m.attr("__version__") = BATCHBLOOM_VERSION_STRING;

    // batchbloom::Error -> batchbloom.Error (a ValueError); FormatError -> its subclass.
    // nanobind tries the most recently registered translator first, so the subclass goes second.
    static nb::exception<bb::Error> error(m, "Error", PyExc_ValueError);
    static nb::exception<bb::FormatError> format_error(m, "FormatError", error);

    m.def("available_backends", &bb::available_backends, "Names of the engines usable on this machine, best first.");
    m.def(
        "resolve_backend",
        [](batchbloom::python::Typed<nb::str> name) {
            const auto b = bb::parse_backend(batchbloom::python::str_arg(name, "name", batchbloom::python::backend_names));
            return std::string(bb::to_string(bb::resolve_backend(b)));
        },
        nb::arg("name").none() = "auto",
        "The engine `name` runs on here ('auto': BATCHBLOOM_BACKEND if set, else the best one).");
    m.def("reload_environment", &bb::reload_environment,
          "Reads BATCHBLOOM_BACKEND and BATCHBLOOM_BATCH_PATH again. The library reads them once:\n"
          "after changing them in os.environ, call this for later calls to follow.");

    batchbloom::python::bind_params(m);
    batchbloom::python::bind_filter(m);
    batchbloom::python::bind_counting(m);
    batchbloom::python::bind_scalable(m);
    batchbloom::python::bind_classic(m);
    batchbloom::python::bind_deletable(m);
    batchbloom::python::bind_join(m);
    batchbloom::python::bind_load_any(m);
    batchbloom::python::bind_concurrent(m);
    batchbloom::python::bind_parquet(m);
    batchbloom::python::bind_lock(m);
    batchbloom::python::bind_sketch(m);

    // inspect.signature() reads obj.__signature__ before anything else, and nanobind's function
    // types (nb_func, nb_method, nb_bound_method) and its metaclass nb_type have none; being
    // immutable types, they take no new attribute from Python. batchbloom/_signatures.py hands
    // each a property through this (the module's own NB_DOMAIN keeps those types private to this
    // extension). Type slots are untouched: calls and attribute lookups cost what they did.
    m.def(
        "_define_signature",
        [](nb::type_object type, nb::object property) {
            auto* tp = reinterpret_cast<PyTypeObject*>(type.ptr());
            const auto name = nb::cast<std::string>(type.attr("__name__"));
            if (nb::cast<std::string>(type.attr("__module__")) != "nanobind" ||
                (name != "nb_func" && name != "nb_method" && name != "nb_bound_method" && name != "nb_type"))
                throw nb::type_error("_define_signature() takes nanobind's function types or its metaclass");
            tp->tp_flags &= ~Py_TPFLAGS_IMMUTABLETYPE;
            const int failed = PyObject_SetAttrString(type.ptr(), "__signature__", property.ptr());
            tp->tp_flags |= Py_TPFLAGS_IMMUTABLETYPE;
            if (failed) throw nb::python_error();
        },
        nb::arg("type"), nb::arg("property"));
}
