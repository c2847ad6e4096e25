"""omnieval.sources"""
