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

// Whether the lines typed so far can be a whole input, decided from each new line
// alone (so reading an input is linear in its length, however many lines it has):
// the compiler sees the input only when this says it may be complete. It follows the
// lexer's rules (vm/lexer.cpp) for what it skips: strings (which end at their line),
// // comments and /* block comments */, which may span lines. An input may be
// complete when no bracket is open, no block comment is, and its last token can end
// a statement (not an operator, ',', '.', or a keyword that needs what follows), or
// when a string ran to the end of its line (the lexer's error: no later line mends it).
// Brackets closed in the wrong order are left to the compiler.
class InputScanner {
 public:
  void addLine(std::string_view line);
  bool mayBeComplete() const { return unterminatedString_ || (depth_ == 0 && !inBlockComment_ && !wantsMore_); }
  // No bracket ever closed one that was not open: then the input's own brackets
  // cannot close the parentheses valueForm puts around it.
  bool balanced() const { return depth_ == 0 && !closedUnopened_; }
  void reset() { *this = InputScanner(); }

 private:
  void endWord(std::string_view word);

  long depth_ = 0;  // ( [ { open, less ) ] } closed
  bool closedUnopened_ = false;
  bool inBlockComment_ = false;
  bool wantsMore_ = false;  // the last token cannot end a statement
  bool unterminatedString_ = false;
};

}  // namespace kith::cli
