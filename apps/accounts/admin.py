from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from apps.accounts.models import ApiToken, User


@admin.register(User)
class CogniVaultUserAdmin(UserAdmin):
    list_display = ("username", "first_name", "last_name", "is_staff", "last_login")
    list_filter = ("is_staff", "is_active")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "last_used_at")
    readonly_fields = ("user", "prefix", "key_hash", "created_at", "last_used_at")

    def has_add_permission(self, request) -> bool:
        return False  # tokens are issued from the settings page, where the secret is shown once
