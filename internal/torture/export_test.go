package torture

// Traced returns cfg with trace told each call's kind and each fault's
// kind as the run draws them.
func Traced(cfg Config, trace func(event string)) Config {
	cfg.trace = trace
	return cfg
}
