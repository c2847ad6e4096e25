"""usernames unique whatever their case (``Alice`` and ``alice`` are one account)"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_index("ix_users_username_lower", "users", [sa.text("lower(username)")], unique=True)


def downgrade() -> None:
    op.drop_index("ix_users_username_lower", table_name="users")
