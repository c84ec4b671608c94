"""The tournament service (docs/tournament_service.md): the director of ``tablestorm.services.director``
run live on real time, its tables on remote table servers, players watching over gRPC."""
