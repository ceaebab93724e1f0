# attnprep: params
# expect: pass
# style: a frozen dataclass config with validation in __post_init__ and per-part properties (attention, mlp, norms, embeddings); sizes coerced with operator.index so NumPy ints become Python ints
import operator
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class LlamaConfig:
    vocab_size: int
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    d_ff: int
    tied_embeddings: bool = False

    def __post_init__(self):
        for name in ("vocab_size", "d_model", "n_layers", "n_heads", "n_kv_heads",
                     "head_dim", "d_ff"):
            v = operator.index(getattr(self, name))
            if v <= 0:
                raise ValueError(f"{name} must be positive, got {v}")
            object.__setattr__(self, name, v)
        if self.n_heads % self.n_kv_heads != 0:
            raise ValueError("n_heads must be a multiple of n_kv_heads")

    @property
    def attention(self):
        q = self.n_heads * self.head_dim
        kv = self.n_kv_heads * self.head_dim
        return self.d_model * q + 2 * self.d_model * kv + q * self.d_model

    @property
    def mlp(self):
        return 3 * self.d_model * self.d_ff

    @property
    def block(self):
        return self.attention + self.mlp + 2 * self.d_model

    @property
    def embeddings(self):
        n = self.vocab_size * self.d_model
        return n if self.tied_embeddings else 2 * n

    @property
    def total(self):
        return self.n_layers * self.block + self.d_model + self.embeddings


def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff,
                 tied_embeddings=False):
    return LlamaConfig(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff,
                       bool(tied_embeddings)).total


def weights_gib(n_params, bits):
    bytes_ = Fraction(operator.index(n_params) * operator.index(bits), 8)
    return float(bytes_ / 2**30)
