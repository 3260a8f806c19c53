package report

// KindOfFailure names the kind of one failed request's error text, as
// FailureKinds groups them: the live view and the live metrics count the
// failures by the same kinds as the result's failure_kinds.
func KindOfFailure(text string) string { return failureKind(text) }
