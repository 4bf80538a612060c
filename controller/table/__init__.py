"""The table's core: the loop, the hand kept in the store, what it publishes, the
alerts, the dice, the acts of staff and players, the display and the seats."""
