"""The training recipe of the card-first reader (torch, the ``[train]`` extra; never imported at run time)."""
