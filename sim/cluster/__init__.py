"""The Ray plumbing the commands share: connecting to a cluster, placing and deploying actors,
what nodes tell the actors, and how a run answers Ctrl-C."""
