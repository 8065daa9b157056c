"""A small test-case reducer: deletes lines of a C file while a failure persists.

`reduce_lines(text, still_fails, deadline)` tries to delete chunks of lines (halving
the chunk size down to one line, as delta debugging does) and keeps every deletion
after which `still_fails(candidate)` is true. The predicate decides what "the same
failure" means and must reject candidates that no longer compile or whose reference
run changed (see runner.py). Stops at `deadline` (a time.monotonic() value) with the
smallest text found so far. Relies on nothing but the standard library, so it works
where creduce is not installed.
"""

import time


def reduce_lines(text, still_fails, deadline):
    lines = text.split("\n")
    chunk = max(1, len(lines) // 2)
    while chunk >= 1:
        start, removed_any = 0, False
        while start < len(lines):
            if time.monotonic() > deadline:
                return "\n".join(lines)
            candidate = lines[:start] + lines[start + chunk:]
            if candidate and still_fails("\n".join(candidate)):
                lines, removed_any = candidate, True
            else:
                start += chunk
        if not removed_any:
            chunk //= 2
    return "\n".join(lines)
