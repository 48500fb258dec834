#!/usr/bin/env ruby
# frozen_string_literal: true

# Rails API scaffold test server for Depot's integration tests.
#
# Run as `ruby Tests/Servers/rails/serve.rb` (any cwd; Debian 12's packages:
# ruby-rails 6.1, ruby-sqlite3, ruby-webrick). It binds 127.0.0.1 on a free
# port, prints exactly one line `PORT <n>` to stdout and serves with WEBrick
# through Rack (HTTP/1.1 keep-alive). It exits on SIGTERM/SIGINT/SIGHUP and as
# soon as its stdin reaches EOF, so the parent must hand it a pipe as stdin.
# The SQLite database lives in a fresh temp dir, removed at exit.
#
# The app is one file in place of `rails new --api` + `rails g scaffold Note
# title:string body:text done:boolean --api`: the generated controller is
# copied as Rails 6.1 writes it, with the model's `validates :title,
# presence: true` and the generated `wrap_parameters format: [:json]`.

require "fileutils"
require "json"
require "logger"
require "tmpdir"

TMPDIR = Dir.mktmpdir("depot-rails-")
EXIT_LOCK = Mutex.new

def exit_now(code = 0)
  EXIT_LOCK.synchronize do
    FileUtils.rm_rf(TMPDIR)
    $stderr.flush
    exit!(code)
  end
end

# A trap handler cannot take a Mutex: it hands the exit to a thread.
%w[TERM INT HUP].each { |signal| Signal.trap(signal) { Thread.new { exit_now(0) } } }
Thread.new do
  begin
    loop { $stdin.readpartial(65_536) }
  rescue EOFError, IOError, SystemCallError
    nil
  end
  exit_now(0)
end

begin
  ENV["RAILS_ENV"] = "production"
  # config/database.yml's SQLite, in the temp dir.
  ENV["DATABASE_URL"] = "sqlite3:#{File.join(TMPDIR, "notes.sqlite3")}?pool=16&timeout=20000"
  require "rails"
  require "active_record/railtie"
  require "action_controller/railtie"
  require "rack/handler/webrick"
  require "webrick"

  # ---- the app (config/application.rb of `rails new --api`) -------------------

  class NotesApp < Rails::Application
    config.load_defaults 6.1
    config.api_only = true
    config.eager_load = false
    config.secret_key_base = "depot-integration-tests-not-secret"
    config.logger = Logger.new($stderr, level: Logger::ERROR)
    config.log_level = :error

    routes.append do
      resources :notes
    end
  end

  # config/initializers/wrap_parameters.rb, as `rails new` writes it.
  ActiveSupport.on_load(:action_controller) do
    wrap_parameters format: [:json]
  end

  NotesApp.initialize!

  # db/schema.rb of the scaffold's migration.
  ActiveRecord::Migration.verbose = false
  ActiveRecord::Schema.define do
    create_table :notes do |t|
      t.string :title
      t.text :body
      t.boolean :done
      t.timestamps
    end
  end

  # app/models/note.rb
  class Note < ActiveRecord::Base
    validates :title, presence: true
  end

  class ApplicationController < ActionController::API
  end

  # app/controllers/notes_controller.rb, as the Rails 6.1 API scaffold generates it.
  class NotesController < ApplicationController
    before_action :set_note, only: [:show, :update, :destroy]

    # GET /notes
    def index
      @notes = Note.all

      render json: @notes
    end

    # GET /notes/1
    def show
      render json: @note
    end

    # POST /notes
    def create
      @note = Note.new(note_params)

      if @note.save
        render json: @note, status: :created, location: @note
      else
        render json: @note.errors, status: :unprocessable_entity
      end
    end

    # PATCH/PUT /notes/1
    def update
      if @note.update(note_params)
        render json: @note
      else
        render json: @note.errors, status: :unprocessable_entity
      end
    end

    # DELETE /notes/1
    def destroy
      @note.destroy
    end

    private
      # Use callbacks to share common setup or constraints between actions.
      def set_note
        @note = Note.find(params[:id])
      end

      # Only allow a list of trusted parameters through.
      def note_params
        params.require(:note).permit(:title, :body, :done)
      end
  end

  # ---- request log and control endpoints (Rack, in front of the app) ----------

  class Controls
    def initialize(app)
      @app = app
      @lock = Mutex.new
      @log = []
    end

    def call(env)
      path = env["PATH_INFO"]
      return control(env, path) if path.start_with?("/__")

      # Read before the app runs: its exceptions app rewrites REQUEST_METHOD to GET.
      method = env["REQUEST_METHOD"]
      input = env["rack.input"]
      body = input ? input.read : ""
      input&.rewind
      status, headers, response = @app.call(env)
      @lock.synchronize do
        @log << {
          "method" => method,
          "path" => path,
          "query" => env["QUERY_STRING"].to_s,
          "status" => status.to_i,
          "content_type" => env["CONTENT_TYPE"],
          "idempotency_key" => env["HTTP_IDEMPOTENCY_KEY"],
          "if_match" => env["HTTP_IF_MATCH"],
          "if_none_match" => env["HTTP_IF_NONE_MATCH"],
          "etag" => headers["ETag"],
          "location" => headers["Location"],
          "body" => body.empty? ? nil : body,
        }
      end
      [status, headers, response]
    end

    private

    def control(env, path)
      case [env["REQUEST_METHOD"], path]
      when ["POST", "/__reset"]
        Note.delete_all
        ActiveRecord::Base.connection.execute("DELETE FROM sqlite_sequence WHERE name = 'notes'")
        @lock.synchronize { @log.clear }
        [204, {}, []]
      when ["POST", "/__seed"]
        count = Integer(JSON.parse(env["rack.input"].read)["count"])
        (1..count).each { |i| Note.create!(title: "Note #{i}", body: "", done: false) }
        [201, { "Content-Type" => "application/json" }, [JSON.generate("created" => count)]]
      when ["GET", "/__requests"]
        entries = @lock.synchronize { @log.dup }
        [200, { "Content-Type" => "application/json" }, [JSON.generate(entries)]]
      else
        [404, {}, []]
      end
    end
  end

  app = Controls.new(Rails.application)
  server = WEBrick::HTTPServer.new(
    BindAddress: "127.0.0.1",
    Port: 0,
    Logger: WEBrick::Log.new($stderr, WEBrick::Log::ERROR),
    AccessLog: [],
    DoNotReverseLookup: true
  )
  server.mount("/", Rack::Handler::WEBrick, app)
  $stdout.write("PORT #{server.config[:Port]}\n")
  $stdout.flush
  # Nothing else is ever written to stdout.
  server.start
rescue Exception => e # rubocop:disable Lint/RescueException
  warn e.full_message
  exit_now(1)
end
exit_now(0)
