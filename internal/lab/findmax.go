package lab

import (
	"context"

	"perflab/internal/findmax"
	"perflab/internal/session"
)

// FindMaxConfig tunes the search for the highest sustainable rate.
type FindMaxConfig = findmax.Config

// FindMax launches (or attaches to) the service once and searches the
// highest arrival rate it sustains within the SLO (findmax.Search, its
// measure stage). The run directory keeps every step and, as the run's
// load and target, the best passing step.
func FindMax(ctx context.Context, cfg Config, fm FindMaxConfig) (res *Result, err error) {
	cfg.Name += "-findmax"
	cfg.Profiler = ProfilerNone
	return pipeline(ctx, cfg, func(ctx context.Context, s *session.Session) error {
		return findmax.Search(ctx, s, fm)
	}, nil)
}
