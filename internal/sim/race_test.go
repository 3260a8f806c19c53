//go:build race

package sim

// raceEnabled is true under -race, which makes every event several times
// more expensive; load tests scale down rather than loosen their bounds.
const raceEnabled = true
