"""What every job a worker does over several seconds shares (chat answers, study generation,
ingestion runs): the claim, the heartbeat, giving up on a silent job, recovery at worker start.
"""
