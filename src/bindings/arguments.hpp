// What the bindings take from Python, checked before any C runs: every entry
// point of both games refuses None, an object whose C++ side was never made,
// and a number that is not an integer where an integer goes, with a TypeError.
//
// - None: the caster below refuses None for each bound class (pybind11 takes
//   it as a null pointer, and a method bound from a member function takes its
//   self by pointer: CoreState.apply(None, 1) ran on nullptr). The tables are
//   taken by reference, never by holder (a std::shared_ptr argument takes
//   None as an empty pointer, and pybind11's holder caster is not this one);
//   what keeps them gets their owner from TablesBase's shared_from_this().
// - A never-made object: Tables.__new__(Tables) (without __init__) is a Python
//   object with no C++ object behind it, and pybind11 would hand the function
//   uninitialised memory in its place; the caster refuses it instead, for
//   every class that declares `using xen_bound_class = void;`.
// - Integers: every integer argument is .noconvert(), so only int and what has
//   __index__ (numpy's integers) are taken; pybind11 would otherwise truncate
//   a numpy float32, a Fraction or a Decimal (1234.7 playing 1234).
//   integer_array is the same rule for an array of codes.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <type_traits>

namespace xen {

namespace py = pybind11;

template <class T, class = void> struct is_bound_class : std::false_type {};
template <class T>
struct is_bound_class<T, std::void_t<typename T::xen_bound_class>> : std::true_type {};

// `values` as a numpy array of integers (of its own integer dtype) when it is
// one, or a sequence of them; a TypeError naming `what` for floats, booleans,
// objects or text.
inline py::array integer_array(const py::object &values, const char *what) {
    py::array array = py::array::ensure(values);
    if (!array) throw py::type_error(std::string(what) + " must be an array of integers");
    char kind = array.dtype().kind();
    if (kind != 'i' && kind != 'u')
        throw py::type_error(std::string(what) + " must be integers, not " +
                             py::str(array.dtype()).cast<std::string>());
    return array;
}

}  // namespace xen

namespace pybind11::detail {

// The caster of a bound class: pybind11's, but None is refused (not taken as
// a null pointer) and an instance that was never initialised (its value
// pointer still null) is a TypeError, where pybind11 would allocate raw
// memory for it and hand that to the function.
template <class T>
class type_caster<T, enable_if_t<xen::is_bound_class<T>::value>> : public type_caster_base<T> {
  public:
    bool load(handle src, bool convert) {
        // pybind11 takes None as a null pointer, and a method bound from a
        // member function takes its self by pointer: C.method(None) ran on nullptr
        if (src.is_none()) return false;
        return this->template load_impl<type_caster>(src, convert);
    }

    void load_value(value_and_holder &&v_h) {
        if (v_h.value_ptr() == nullptr)
            throw type_error(std::string(Py_TYPE(reinterpret_cast<PyObject *>(v_h.inst))->tp_name) +
                             " object was never initialised (made by __new__ without "
                             "__init__): make one with its constructor or factory");
        type_caster_base<T>::load_value(std::move(v_h));
    }
};

}  // namespace pybind11::detail
