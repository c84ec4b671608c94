"""`tablestorm capacity`: what one core of the real table service carries at the SLO.

A stepped load sweep (:mod:`.sweep`) judged by an SLO (:mod:`.slo`), the Universal Scalability Law
fitted to it (:mod:`.usl`), capacity.json (:mod:`.result`) and capacity.html (:mod:`.report`); the
command's flags are :mod:`.command`.
"""
