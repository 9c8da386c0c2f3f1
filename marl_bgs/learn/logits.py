"""The logit given to a choice the action mask forbids: float32's lowest number, so that
sampling never picks it and an argmax never prefers it. One value for the JAX networks, the
NumPy policy (`.npz` files played without JAX) and the Q-value readers, so that both
engines mask the same way."""

import numpy as np

NEG = float(np.finfo(np.float32).min)
