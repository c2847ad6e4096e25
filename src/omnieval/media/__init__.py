"""omnieval.media"""
