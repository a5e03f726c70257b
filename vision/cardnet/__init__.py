"""The card-first, learned card reader: find each card's top-left corner, then read it from a crop.

Modules, each importing only downwards: :mod:`.spec` (the fixed geometry both nets and the
training recipe share) → :mod:`.nets` (the ONNX networks, run by ONNX Runtime where installed, else by OpenCV's ``dnn``) →
:mod:`.detector` (heatmap → card corners) and :mod:`.crops` (canonical crops at a corner) →
:mod:`.head` (the classifier's last layer: shipped, enrolled or learned while playing) →
:mod:`.read` (one zone → :class:`vision.cardnet.read.PlayReading`).
"""
