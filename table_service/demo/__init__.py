"""The simulated table and the simulated event (``guandan-table demo``): bots, a dealer, a demo referee.

Above the table service and the hub, which it drives as a real table and a real hub would be driven.
"""
