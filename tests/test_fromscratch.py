"""The from-scratch rule catches the library shortcut, names its line, and nothing else."""

from pathlib import Path

import pytest

from attnprep import catalogue, fromscratch
from attnprep.engine import grade

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("slug, source, name", [
    ("softmax", "from scipy.special import softmax as sm\ndef softmax(z, axis=-1):\n    return sm(z, axis=axis)\n",
     "scipy.special.softmax"),
    ("softmax", "import scipy.special\ndef softmax(z, axis=-1):\n    import numpy as np\n"
                "    return np.exp(scipy.special.log_softmax(z, axis=axis))\n",
     "scipy.special.log_softmax"),
    ("softmax", "import torch\ndef softmax(z, axis=-1):\n    return torch.as_tensor(z).softmax(dim=axis)\n",
     "Tensor.softmax"),
    ("attention", "import torch.nn.functional as F\ndef attention(q, k, v, mask=None):\n"
                  "    return F.scaled_dot_product_attention(q, k, v)\n",
     "torch.nn.functional.scaled_dot_product_attention"),
    ("mha", "from torch import nn\nM = nn.MultiheadAttention\n", "torch.nn.MultiheadAttention"),
    ("rmsnorm", "from torch.nn import functional as F\ndef rms_norm(x, w, eps=1e-6):\n"
                "    return F.rms_norm(x, x.shape[-1:], w, eps)\n", "torch.nn.functional.rms_norm"),
    ("xent", "import torch\ndef cross_entropy(logits, targets):\n"
             "    return torch.nn.functional.cross_entropy(logits, targets)\n", "torch.nn.functional.cross_entropy"),
])
def test_the_library_shortcut_is_caught_on_its_line(slug, source, name):
    status, message = fromscratch.verdict(slug, source)
    found = fromscratch.shortcuts(slug, source)
    assert status == "fail" and found[0].name == name
    assert f"line {found[0].line} uses {name}" in message


@pytest.mark.parametrize("source", [
    "import scipy.special\nimport numpy as np\ndef softmax(z, axis=-1):\n"
    "    return np.exp(z - scipy.special.logsumexp(z, axis=axis, keepdims=True))\n",
    "import torch\ndef softmax(z, axis=-1):\n    return torch.exp(z - torch.logsumexp(z, dim=axis, keepdim=True))\n",
    "import torch\ndef softmax(z, axis=-1):\n    return (z - z.logsumexp(dim=axis, keepdim=True)).exp()\n",
])
def test_softmax_may_use_logsumexp(source):
    """exp(z - logsumexp(z)) is a softmax of the learner's own (as np.logaddexp.reduce is), not the library's."""
    assert fromscratch.verdict("softmax", source) == ("pass", None)


def test_other_exercises_may_use_softmax_freely():
    source = "import torch\nimport torch.nn.functional as F\ndef attention(q, k, v, mask=None):\n" \
             "    return F.softmax(q @ k.transpose(-2, -1), dim=-1) @ v\n"
    assert fromscratch.verdict("attention", source) == ("pass", None)
    assert not fromscratch.applies("sampling")


def test_no_false_positive_on_any_corpus_file_or_reference():
    files = (sorted((ROOT / "tests" / "corpus").glob("*/*.py")) + sorted((ROOT / "solutions").glob("*.py"))
             + sorted((ROOT / "solutions" / "torch").glob("*.py")))
    for path in files:
        slug = path.parent.name if path.parent.parent.name == "corpus" else path.stem
        assert fromscratch.shortcuts(slug, path.read_text(encoding="utf-8")) == [], path


def test_the_invariant_is_in_the_report_and_in_show():
    from attnprep.engine import invariant_list

    ok = grade(catalogue.get("softmax"), (ROOT / "solutions" / "softmax.py").read_text(), "softmax.py")
    assert ok.status == "pass" and ok.invariants[-1].id == "from-scratch"
    assert ("from-scratch", fromscratch.DESCRIPTION) in invariant_list(catalogue.get("softmax"))
    assert "from-scratch" not in dict(invariant_list(catalogue.get("sampling")))
