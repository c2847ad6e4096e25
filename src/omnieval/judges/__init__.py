"""omnieval.judges"""
