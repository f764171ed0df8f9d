//go:build race

package tilegpu

// raceEnabled: the race detector keeps shadow memory for every address the
// GPU touches, which shows in RSS, so the RSS tests skip.
const raceEnabled = true
