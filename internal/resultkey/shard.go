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
	// ShardServerDates is the object of what the shard saw of the
	// server's Date headers (keys Dates*), from which gobench merge
	// bounds the clock skew between the shards.
	ShardServerDates = "server_dates"
)

// Keys of gobench_shard's server_dates object (ShardServerDates), in its
// order. The lists hold one entry per distinct Date value, by value; the
// times are on the start_times' clock.
const (
	// DatesResponses counts the responses observed (every request that
	// got an answer, warm-ups included); DatesUndated those without one
	// parseable Date header.
	DatesResponses = "responses"
	DatesUndated   = "undated_responses"
	// DatesValues lists the Date values seen, in Unix seconds.
	DatesValues = "values"
	// DatesLastSend lists, per value, the latest send of a request
	// answered with it; DatesFirstArrival the earliest arrival of such an
	// answer's headers.
	DatesLastSend     = "last_send"
	DatesFirstArrival = "first_arrival"
	// DatesCounts lists, per value, the answers that carried it.
	DatesCounts = "counts"
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
	// MergeSkewBoundMS bounds, from the server's Date headers, how far
	// any shard's timeline is from shard 0's, in milliseconds: the
	// largest |offset| that every shard's bound allows (null when some
	// shard's offset has no bound).
	MergeSkewBoundMS = "skew_bound_ms"
	// MergeSkewBoundNote says how the bound is made and what it assumes.
	MergeSkewBoundNote = "skew_bound_note"
	// MergeSkewCorrected tells whether the merge moved each bounded
	// shard's timeline by the middle of its bound (merge --correct-skew).
	MergeSkewCorrected = "skew_corrected"
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
	// MergeShardDateChanges counts the changes of the server's Date value
	// the shard saw (each one instant of the server's that it bounded).
	MergeShardDateChanges = "date_changes"
	// MergeShardOffsetMS is [low, high]: the bound of the shard's
	// timeline minus shard 0's (the same instant's reading on each), in
	// milliseconds, from the Date changes both saw ([0, 0] for shard 0;
	// null without a bound, MergeShardOffsetNote then says why).
	MergeShardOffsetMS = "offset_vs_shard0_ms"
	// MergeShardOffsetChanges counts the Date changes both the shard and
	// shard 0 bounded, which made MergeShardOffsetMS.
	MergeShardOffsetChanges = "offset_date_changes"
	// MergeShardOffsetNote says why the shard's offset has no bound (null
	// when it has one).
	MergeShardOffsetNote = "offset_note"
	// MergeShardCorrectionMS is how far the merge moved the shard's
	// timeline (the middle of its bound, subtracted; 0 without
	// --correct-skew).
	MergeShardCorrectionMS = "correction_ms"
)
