//go:build !race

package compare

// raceEnabled is true under -race, which makes the bootstrap loops many
// times slower; the statistical tests then run fewer trials.
const raceEnabled = false
