package session

import "perflab/internal/service"

// serviceEnv is the environment the service started with (its first
// process's), nil when it cannot be read.
func (s *Session) serviceEnv() map[string]string {
	if s.proc == nil {
		return nil
	}
	env, err := service.Environ(s.proc.PID())
	if err != nil {
		return nil
	}
	return env
}
