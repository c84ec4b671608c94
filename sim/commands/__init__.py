"""The ``tablestorm`` commands that have no package of their own: the servers, replay, simulate
and the structure advisor. Each module is one command (``register`` its flags, ``run`` it); the
commands of a package live there (``tablestorm.sim.load.command``), and :mod:`tablestorm.sim.cli`
names them all."""
