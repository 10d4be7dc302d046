"""What every job a worker does over several seconds shares (chat answers, study generation,
attachments, transcriptions; ingestion runs take the heartbeat and the recovery only): the
claim, the heartbeat, giving up on a silent job, the one loop a job is done in, recovery at
worker start.
"""
