package lab

import (
	"context"

	"perflab/internal/batch"
)

// BatchConfig describes one run of a batch program (see batch.Config).
type BatchConfig = batch.Config

// BatchExitError is a batch program that ended otherwise than by exiting
// 0: the run is written (partial), with what was measured until then.
type BatchExitError = batch.ExitError

// DefaultBatchTimeout bounds a batch program's run when
// BatchConfig.Timeout is 0.
const DefaultBatchTimeout = batch.DefaultTimeout

// RunBatch runs a batch program once under the budget and measures it
// until it exits (batch.Run), written as a run directory.
func RunBatch(ctx context.Context, cfg BatchConfig) (*Result, error) { return batch.Run(ctx, cfg) }
