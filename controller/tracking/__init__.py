"""From what the readers and buttons report to engine actions: the tracker and its parts.

tracker   the table tracker: feeds reports to its parts, one reconciling step at a time

picture   where each tag lies, as the readers last said; where the engine puts each tile
window    the claim window: whether one is open, and who may still answer
buttons   the buttons waiting to apply, and the action each one asks for
moves     which legal action explains the difference between the two pictures
melds     which claim laid tiles (or a button alone) make
problems  what the tracker finds wrong; alerts at once, once per cause, or after a grace time
engine_port  the tracker's HandPort over the engine alone (trials and tests; the service's
          is the table's HandKeeper)
"""
