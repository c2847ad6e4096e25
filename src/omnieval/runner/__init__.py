"""omnieval.runner"""
