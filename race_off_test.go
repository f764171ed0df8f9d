//go:build !race

package tilegpu

const raceEnabled = false
