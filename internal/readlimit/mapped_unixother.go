//go:build unix && !linux

package readlimit

// mapPopulate is Linux's MAP_POPULATE; other systems fault the pages in
// as they are read.
const mapPopulate = 0
