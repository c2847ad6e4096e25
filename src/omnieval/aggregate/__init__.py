"""omnieval.aggregate"""
