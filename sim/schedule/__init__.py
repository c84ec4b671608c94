"""`tablestorm schedule`: a Monte Carlo of a day's tournament schedule, replications on Ray.

``spec`` reads the schedule file, ``forecast`` and ``players`` are what it forecasts (fields,
arrivals, who plays), ``replication`` plays one event of one replication with the accelerated
driver, ``demand`` counts its load by minute, ``runner`` fans the (replication, event) pairs out as
Ray tasks, ``result`` turns them into schedule.json and its CSV, ``report`` into schedule.html.
"""
