package readlimit

import "syscall"

// mapPopulate asks Linux to map every page of the file at once, rather
// than one fault per page as the parser first reads it.
const mapPopulate = syscall.MAP_POPULATE
