"""omnieval.submission"""
