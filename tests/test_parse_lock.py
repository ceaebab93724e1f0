"""Every AST parse of the judge holds wire.PARSE_LOCK: CPython 3.11's parser is not safe in two threads at once."""

import ast
import io

import numpy as np

from attnprep import fromscratch, wire


def test_array_headers_and_source_are_parsed_under_the_lock(monkeypatch):
    held = []
    real = ast.parse

    def parse(*args, **kwargs):
        held.append(wire.PARSE_LOCK.locked())
        return real(*args, **kwargs)

    monkeypatch.setattr(ast, "parse", parse)
    buffer = io.BytesIO()
    np.save(buffer, np.arange(6.0).reshape(2, 3))
    got = wire.decode({"$nd": 0}, [buffer.getvalue()])
    assert got.shape == (2, 3)
    fromscratch.shortcuts("softmax", "import numpy as np\n\ndef softmax(z):\n    return np.exp(z)\n")
    assert len(held) >= 2 and all(held), held
