package main

// shared is what a note says when the server and the client share the
// machine (its 2 cores, with other work).
const shared = "simulator and client on this machine, shared with other work"
