"""Entry point on the Pico: copy this package to ``/lib/screenfw`` and put
``from screenfw.main import main; main()`` in ``/main.py``."""

from .controller import Config, Controller


def main(config=None):
    """Run the controller on the real board forever."""
    from .hal_pico import PicoHal  # lazy: MicroPython's machine module, on the Pico only

    Controller(PicoHal(), config or Config()).run()
