// Reading a canonical state dict strictly, for from_dict of both games.
//
// Every value is checked for its type and for the range of the C field it is
// stored in, so that no input is converted silently (a wrapped integer, a
// truthy number taken for a bool, a list cut short) and every bad input is a
// ValueError naming where it is ("from_dict: players[0].ap: ..."), never
// another exception of pybind11 or Python. Whether the values make a position
// together is the C core's state check's business (each core's
// GAME_state_check), which from_dict runs on the state it built.
#pragma once

#include <pybind11/pybind11.h>

#include <initializer_list>
#include <string>

namespace xen {

namespace py = pybind11;

struct StrictReader {
    [[noreturn]] static void fail(const std::string &where, const std::string &why) {
        throw py::value_error("from_dict: " + where + ": " + why);
    }

    // repr(o) for a message: never raises, cut to about 80 characters (at a
    // character boundary: the message must stay valid UTF-8).
    static std::string repr(const py::handle &o) {
        std::string text;
        try {
            text = py::repr(o).cast<std::string>();
        } catch (const std::exception &) {  // a repr that raises, or too deep to print
            text = std::string("<") + Py_TYPE(o.ptr())->tp_name + ">";
        }
        if (text.size() <= 80) return text;
        size_t cut = 77;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) cut--;
        return text.substr(0, cut) + "...";
    }

    static void only_keys(const py::dict &d, std::initializer_list<const char *> keys,
                          const std::string &where) {
        for (auto item : d) {
            bool known = false;
            if (py::isinstance<py::str>(item.first)) {
                std::string key = text(item.first, where);
                for (const char *k : keys) known = known || key == k;
            }
            if (!known) fail(where, "unknown key " + repr(item.first));
        }
    }

    static py::object required(const py::dict &d, const char *key, const std::string &where) {
        if (!d.contains(key)) fail(where, std::string("missing key '") + key + "'");
        return d[key];
    }

    // None when the key is missing.
    static py::object optional(const py::dict &d, const char *key) {
        return d.contains(key) ? py::object(d[key]) : py::object(py::none());
    }

    // An int (not a bool) in lo..hi.
    static long long integer(const py::handle &o, const std::string &where, long long lo,
                             long long hi) {
        if (!py::isinstance<py::int_>(o) || py::isinstance<py::bool_>(o))
            fail(where, "an integer is needed, not " + repr(o));
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
        if (overflow || v < lo || v > hi)
            fail(where, repr(o) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
        return v;
    }

    // d[key] (required) as an integer in lo..hi; `where` names d.
    static long long field(const py::dict &d, const char *key, const std::string &where,
                           long long lo, long long hi) {
        return integer(required(d, key, where), where + "." + key, lo, hi);
    }

    // d[key] as an integer in lo..hi, `otherwise` when missing (or None).
    static long long field_or(const py::dict &d, const char *key, const std::string &where,
                              long long lo, long long hi, long long otherwise) {
        py::object v = optional(d, key);
        return v.is_none() ? otherwise : integer(v, where + "." + key, lo, hi);
    }

    static bool boolean(const py::handle &o, const std::string &where) {
        if (!py::isinstance<py::bool_>(o)) fail(where, "True or False is needed, not " + repr(o));
        return o.ptr() == Py_True;
    }

    static py::dict dict(const py::handle &o, const std::string &where) {
        if (!py::isinstance<py::dict>(o)) fail(where, "a dict is needed, not " + repr(o));
        return py::reinterpret_borrow<py::dict>(o);
    }

    static py::list list(const py::handle &o, const std::string &where) {
        if (!py::isinstance<py::list>(o) && !py::isinstance<py::tuple>(o))
            fail(where, "a list is needed, not " + repr(o));
        return py::list(py::reinterpret_borrow<py::object>(o));
    }

    // A list of exactly n items.
    static py::list list_of(const py::handle &o, size_t n, const std::string &where) {
        py::list items = list(o, where);
        if (items.size() != n)
            fail(where,
                 std::to_string(n) + " items are needed, not " + std::to_string(items.size()));
        return items;
    }

    // A str as UTF-8; a str that has none (a lone surrogate) is refused.
    static std::string text(const py::handle &o, const std::string &where) {
        if (!py::isinstance<py::str>(o)) fail(where, "a string is needed, not " + repr(o));
        Py_ssize_t size = 0;
        const char *utf8 = PyUnicode_AsUTF8AndSize(o.ptr(), &size);
        if (!utf8) {
            PyErr_Clear();
            fail(where, "not valid text (a lone surrogate): " + repr(o));
        }
        return std::string(utf8, static_cast<size_t>(size));
    }

    // A name as the card sets match it (the card sets' by_name): stripped, casefolded.
    static std::string fold(const py::handle &name) {
        return text(name.attr("strip")().attr("casefold")(), "a name");
    }
};

}  // namespace xen
