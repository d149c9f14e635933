"""A learned value network over the view-based observation of ``ttr.rl`` (issue 16, part 4).

``value`` is the run-time side (numpy only: load the shipped weights, evaluate a view); ``train`` is
``ttr train`` (PyTorch, imported lazily: the rest of ttr works without it). docs/bots.md, *learned*.
"""
