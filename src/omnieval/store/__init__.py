"""omnieval.store"""
