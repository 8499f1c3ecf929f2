// How `kith repl` reads what a person typed, using only the compiler's public
// contract (vm/compiler.h): the text it compiles to show an expression's value, and
// whether a failed compile means the input is unfinished (a block left open) rather
// than wrong.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kith::cli {

// The global the value-showing form assigns to (an assignment, since a global is
// declared once); the REPL defines it, then after each input reads it, prints it and
// clears it.
inline constexpr std::string_view kReplValueGlobal = "__kith_repl_value";

// `input` as one expression whose value lands in kReplValueGlobal, or "" when it
// cannot be one (a declaration, a block). One trailing ';' is dropped; the newline
// before ')' keeps a trailing // comment from swallowing it. Only meant for input
// that already compiles as statements: its brackets then balance, so the ')' here
// cannot close early and the form compiles only when `input` is exactly one expression.
std::string valueForm(std::string_view input);

// Whether every error reached the end of the input while still expecting more ("...,
// found end of file"): the person has not finished typing, so the REPL asks for the
// next line instead of reporting them. False when there are no errors.
bool onlyEndOfInputErrors(const std::vector<std::string>& errors);

// Whether the line asks to end the session (`exit`, with or without ';').
bool isExitCommand(std::string_view line);

}  // namespace kith::cli
