package resultkey

// GobenchShard is the object a shard of a sharded run (serve
// --num-shards, or --start-at alone) writes: its identity and the
// wall-clock anchors that let gobench merge put its requests on one
// timeline with the other shards' (gobench only).
const GobenchShard = "gobench_shard"

// GobenchMerge is the object gobench merge writes into the merged result:
// which shards it took and the clock skew between them (gobench only).
const GobenchMerge = "gobench_merge"

// Keys of the gobench_shard object (GobenchShard), in its order.
const (
	// ShardCount is --num-shards (1 for --start-at alone).
	ShardCount = "num_shards"
	// ShardIndex is --shard-index.
	ShardIndex = "shard_index"
	// ShardStartAt is --start-at in RFC 3339 (UTC, nanoseconds), null
	// without it.
	ShardStartAt = "start_at"
	// ShardStartWall is the shard's wall clock when its dispatcher started
	// (RFC 3339, UTC, nanoseconds): its anchor on the common timeline.
	ShardStartWall = "start_wall"
	// ShardStartClock is the run's clock (the start_times' clock) at the
	// same moment, and ShardEndClock its reading when the last request
	// finished: request k started at start_wall + start_times[k] −
	// start_clock, and the shard ended at start_wall + end_clock −
	// start_clock.
	ShardStartClock = "start_clock"
	ShardEndClock   = "end_clock"
	// ShardGlobalRequests is the size of the global plan the shards
	// share.
	ShardGlobalRequests = "global_requests"
	// ShardRequestIndices lists the global index of each request of the
	// per-request lists (detailed only).
	ShardRequestIndices = "request_indices"
)

// Keys of the gobench_merge object (GobenchMerge), in its order.
const (
	// MergeShards is the number of shards merged (num_shards).
	MergeShards = "num_shards"
	// MergeStartAt is the shards' common --start-at.
	MergeStartAt = "start_at"
	// MergeStartWall is the earliest shard's start: the merged run's
	// start, from which its duration counts.
	MergeStartWall = "start_wall"
	// MergeStartSpreadMS is the spread (max − min) of the shards' start
	// anchors, in milliseconds: a lower bound of how far apart the shards
	// began on the common timeline, their clocks taken as right.
	MergeStartSpreadMS = "start_spread_ms"
	// MergeMaxLatenessMS is the largest shard start after --start-at, by
	// its own clock, in milliseconds.
	MergeMaxLatenessMS = "max_start_lateness_ms"
	// MergeSkewNote says what the anchors cannot show: the offset between
	// the machines' clocks.
	MergeSkewNote = "clock_skew_note"
	// MergePerShard lists, per shard in index order, its file, start
	// anchor, lateness after --start-at (ms) and requests.
	MergePerShard = "shards"
	// MergeShardFile, MergeShardLatenessMS and MergeShardRequests are keys
	// of each entry of MergePerShard (beside ShardIndex and
	// ShardStartWall): the shard's file, its start after --start-at by its
	// own clock (ms), and its requests.
	MergeShardFile       = "file"
	MergeShardLatenessMS = "start_lateness_ms"
	MergeShardRequests   = "requests"
)
