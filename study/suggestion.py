"""The hint beside a misspelled name ("did you mean 'list'?"), by the rule of the C++
command line (cli/suggestion.cpp), so `kith study --policies=lsit` suggests as
`kith run --heap=lsit` does: the one name within two edits (a transposition is one)
and fewer edits than the word has letters; else the one name the word begins."""

MAX_EDITS = 2


def edit_distance(a, b):
    """Optimal string alignment distance: insertions, deletions, substitutions and
    transpositions of neighbours, each one edit."""
    before_previous, previous = [0] * (len(b) + 1), list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before_previous[j - 2] + 1)
        before_previous, previous = previous, current
    return previous[len(b)]


def nearest_name(word, names):
    """The name word most likely misspells, or None (none near, or two equally near)."""
    nearest, distance, tie = None, MAX_EDITS + 1, False
    for name in names:
        d = edit_distance(word, name)
        if d == 0 or d >= len(word):
            continue
        if d < distance:
            nearest, distance, tie = name, d, False
        elif d == distance and name != nearest:
            tie = True
    if nearest is not None and not tie:
        return nearest
    extensions = {name for name in names if word and name.startswith(word) and name != word}
    return extensions.pop() if len(extensions) == 1 else None


def did_you_mean(word, names):
    """"did you mean 'NAME'?", or "" when no name is near."""
    name = nearest_name(word, names)
    return f"did you mean '{name}'?" if name is not None else ""
